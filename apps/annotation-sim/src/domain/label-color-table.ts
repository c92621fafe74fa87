/**
 * CVAT's predefined label colours (`cvat/apps/dataset_manager/formats/predefined_colors.txt`: ImageNet,
 * OpenImages, PASCAL VOC, CamVid, CityScapes, Kitti, COCO and COCO stuff names), as `name=rrggbb` in the
 * file's order: a fact table, read by `label-colors.ts` the first time a label needs a colour.
 */
export const PREDEFINED_COLORS = `
background=000000 accordion=800000 adhesive_tape=008000 aeroplane=808000 aircraft=000080 airplane=800080
alarm_clock=008080 alpaca=808080 ambulance=400000 animal=c00000 ant=408000 antelope=c08000 apple=400080
armadillo=c00080 artichoke=408080 asparagus=c08080 axe=004000 baby_bed=804000 backpack=00c000
bagel=80c000 balance_beam=004080 ball=804080 balloon=00c080 banana=80c080 band_aid=404000 banjo=c04000
banner=40c000 barge=c0c000 barrel=404080 baseball=c04080 baseball_bat=40c080 baseball_glove=c0c080
basketball=000040 bat=800040 bathing_cap=008040 bathroom_cabinet=808040 bathtub=0000c0 beaker=8000c0
bear=0080c0 bed=8080c0 bee=400040 beehive=c00040 beer=408040 beetle=c08040 bell_pepper=4000c0
belt=c000c0 bench=4080c0 bg=c080c0 bicycle=004040 bicycle_helmet=804040 bicycle_wheel=00c040
bidet=80c040 billboard=0040c0 billiard_table=8040c0 binder=00c0c0 binoculars=80c0c0 bird=404040
blanket=c04040 blender=40c040 blue_jay=c0c040 boat=4040c0 book=c040c0 bookcase=40c0c0 bookshelf=c0c0c0
boot=200000 bottle=a00000 bow=208000 bow_and_arrow=a08000 bow_tie=200080 bowl=a00080 box=208080
boy=a08080 branch=600000 brassiere=e00000 bread=608000 bridge=e08000 briefcase=600080 broccoli=e00080
bronze_sculpture=608080 brown_bear=e08080 building=204000 building_other=a04000 bull=20c000
burrito=a0c000 bus=204080 bush=a04080 bust=20c080 butterfly=a0c080 cabbage=604000 cabinet=e04000
cabinetry=60c000 cage=e0c000 cake=604080 cake_stand=e04080 camel=60c080 camera=e0c080 can_opener=200040
canary=a00040 candle=208040 candy=a08040 cannon=2000c0 canoe=a000c0 car=2080c0 caravan=a080c0
cardboard=600040 carnivore=e00040 carpet=608040 carrot=e08040 cart=6000c0 castle=e000c0 cat=6080c0
caterpillar=e080c0 cattle=204040 ceiling_fan=a04040 ceiling_other=20c040 ceiling_tile=a0c040
cell_phone=2040c0 cello=a040c0 centipede=20c0c0 chain_saw=a0c0c0 chair=604040 cheetah=e04040
chest_of_drawers=60c040 chicken=e0c040 chime=6040c0 chopsticks=e040c0 christmas_tree=60c0c0 clock=e0c0c0
cloth=002000 clothes=802000 clouds=00a000 coat=80a000 cocktail=002080 cocktail_shaker=802080
coconut=00a080 coffee=80a080 coffee_cup=402000 coffee_maker=c02000 coffee_table=40a000
coffeemaker=c0a000 coin=402080 common_fig=c02080 computer_keyboard=40a080 computer_monitor=c0a080
computer_mouse=006000 construction=806000 convenience_store=00e000 cookie=80e000 corded_phone=006080
corkscrew=806080 couch=00e080 counter=80e080 countertop=406000 cow=c06000 cowboy_hat=40e000 crab=c0e000
cream=406080 cricket_ball=c06080 crocodile=40e080 croissant=c0e080 croquet_ball=002040 crosswalk=802040
crown=00a040 crutch=80a040 cucumber=0020c0 cup=8020c0 cup_or_mug=00a0c0 cupboard=80a0c0 curtain=402040
cutting_board=c02040 cyclist=40a040 dagger=c0a040 deer=4020c0 desk=c020c0 desk_stuff=40a0c0
dessert=c0a0c0 diaper=006040 dice=806040 digital_clock=00e040 dining_table=80e040 diningtable=0060c0
dinosaur=8060c0 dirt=00e0c0 dishwasher=80e0c0 dog=406040 dog_bed=c06040 doll=40e040 dolphin=c0e040
domestic_cat=4060c0 dontcare=c060c0 donut=40e0c0 door=c0e0c0 door_handle=202000 door_stuff=a02000
doughnut=20a000 dragonfly=a0a000 drawer=202080 dress=a02080 drink=20a080 drinking_straw=a0a080
drum=602000 duck=e02000 dumbbell=60a000 dynamic=e0a000 eagle=602080 earrings=e02080 egg=60a080
electric_fan=e0a080 elephant=206000 envelope=a06000 eye_glasses=20e000 face_powder=a0e000 falcon=206080
fedora=a06080 fence=20e080 fence_guard=a0e080 fig=606000 filing_cabinet=e06000 finish=60e000
fire_hydrant=e0e000 fireplace=606080 fish=e06080 flag=60e080 flashlight=e0e080 floor_marble=202040
floor_other=a02040 floor_stone=20a040 floor_tile=a0a040 floor_wood=2020c0 flower=a020c0
flower_pot=20a0c0 flowerpot=a0a0c0 flute=602040 fog=e02040 food_other=60a040 food_processor=e0a040
football=6020c0 football_helmet=e020c0 footwear=60a0c0 fork=e0a0c0 fountain=206040 fox=a06040
french_fries=20e040 french_horn=a0e040 frisbee=2060c0 frog=a060c0 fruit=20e0c0 frying_pan=a0e0c0
furniture=606040 furniture_other=e06040 gas_stove=60e040 giant_panda=e0e040 giraffe=6060c0 girl=e060c0
glasses=60e0c0 glove=e0e0c0 goat=000020 goggles=800020 goldfish=008020 golf_ball=808020 golf_cart=0000a0
golfcart=8000a0 gondola=0080a0 goose=8080a0 grape=400020 grapefruit=c00020 grass=408020 gravel=c08020
ground=4000a0 ground_other=c000a0 guacamole=4080a0 guitar=c080a0 hair_brush=004020 hair_drier=804020
hair_dryer=00c020 hair_spray=80c020 hamburger=0040a0 hammer=8040a0 hamster=00c0a0 handbag=80c0a0
handgun=404020 harbor_seal=c04020 harmonica=40c020 harp=c0c020 harpsichord=4040a0 hat=c040a0
hat_with_a_wide_brim=40c0a0 head_cabbage=c0c0a0 headphones=000060 helicopter=800060 helmet=008060
high_heels=808060 hill=0000e0 hippopotamus=8000e0 home_appliance=0080e0 honeycomb=8080e0
horizontal_bar=400060 horn=c00060 horse=408060 hot_dog=c08060 hotdog=4000e0 house=c000e0
houseplant=4080e0 human=c080e0 human_arm=004060 human_beard=804060 human_ear=00c060 human_eye=80c060
human_face=0040e0 human_foot=8040e0 human_hair=00c0e0 human_hand=80c0e0 human_head=404060
human_leg=c04060 human_mouth=40c060 human_nose=c0c060 ice_cream=4040e0 ignore=c040e0 infant_bed=40c0e0
insect=c0c0e0 invertebrate=200020 ipod=a00020 isopod=208020 jacket=a08020 jaguar=2000a0 jeans=a000a0
jellyfish=2080a0 jet_ski=a080a0 jug=600020 juice=e00020 kangaroo=608020 kettle=e08020 keyboard=6000a0
kitchen_appliance=e000a0 kitchen_dining_room_table=6080a0 kitchen_knife=e080a0 kite=204020 knife=a04020
koala_bear=20c020 ladder=a0c020 ladle=2040a0 ladybug=a040a0 lamp=20c0a0 land_vehicle=a0c0a0
lantern=604020 laptop=e04020 lavender=60c020 leaves=e0c020 lemon=6040a0 leopard=e040a0
license_plate=60c0a0 lifejacket=e0c0a0 light=200060 light_bulb=a00060 light_switch=208060
lighthouse=a08060 lily=2000e0 limousine=a000e0 lion=2080e0 lipstick=a080e0 lizard=600060 lobster=e00060
loveseat=608060 luggage_and_bags=e08060 lynx=6000e0 maillot=e000e0 man=6080e0 mango=e080e0 maple=204060
maraca=a04060 marine_invertebrates=20c060 marine_mammal=a0c060 mat=2040e0 measuring_cup=a040e0
mechanical_fan=20c0e0 metal=a0c0e0 microphone=604060 microwave=e04060 microwave_oven=60c060
milk_can=e0c060 miniskirt=6040e0 mirror=e040e0 mirror_stuff=60c0e0 misc=e0c0e0 missile=002020
mixer=802020 mobile_phone=00a020 monkey=80a020 moss=0020a0 moths_and_butterflies=8020a0 motorbike=00a0a0
motorcycle=80a0a0 mountain=402020 mouse=c02020 mud=40a020 muffin=c0a020 mug=4020a0 mule=c020a0
mushroom=40a0a0 musical_instrument=c0a0a0 musical_keyboard=006020 nail=806020 napkin=00e020
nature=80e020 neck_brace=0060a0 necklace=8060a0 net=00e0a0 nightstand=80e0a0 non_vehicle=406020
obj=c06020 object=40e020 oboe=c0e020 office_building=4060a0 office_supplies=c060a0 on_rails=40e0a0
orange=c0e0a0 organ=002060 ostrich=802060 otter=00a060 oven=80a060 owl=0020e0 oyster=8020e0
paddle=00a0e0 palm_tree=80a0e0 pancake=402060 paper=c02060 paper_towel=40a060 parachute=c0a060
parking=4020e0 parking_meter=c020e0 parrot=40a0e0 pasta=c0a0e0 pavement=006060 peach=806060 pear=00e060
pedestrian=80e060 pen=0060e0 pencil_box=8060e0 pencil_sharpener=00e0e0 penguin=80e0e0 perfume=406060
person=c06060 personal_care=40e060 piano=c0e060 picnic_basket=4060e0 picture_frame=c060e0 pig=40e0e0
pillow=c0e0e0 pineapple=202020 ping_pong_ball=a02020 pitcher=20a020 pizza=a0a020 plant_other=2020a0
plastic=a020a0 plastic_bag=20a0a0 plate=a0a0a0 plate_rack=602020 platform=e02020 platter=60a020
playingfield=e0a020 plumbing_fixture=6020a0 polar_bear=e020a0 pole=60a0a0 pole_group=e0a0a0
pomegranate=206020 popcorn=a06020 popsicle=20e020 porch=a0e020 porcupine=2060a0 poster=a060a0
potato=20e0a0 potted_plant=a0e0a0 pottedplant=606020 power_drill=e06020 power_plugs_and_sockets=60e020
pressure_cooker=e0e020 pretzel=6060a0 printer=e060a0 puck=60e0a0 pumpkin=e0e0a0 punching_bag=202060
purse=a02060 rabbit=20a060 raccoon=a0a060 racket=2020e0 radish=a020e0 rail=20a0e0 rail_track=a0a0e0
railing=602060 railroad=e02060 raven=60a060 ray=e0a060 red_panda=6020e0 refrigerator=e020e0
remote=60a0e0 remote_control=e0a0e0 reptile=206060 rhinoceros=a06060 rider=20e060 rifle=a0e060
ring_binder=2060e0 river=a060e0 road=20e0e0 rock=a0e0e0 rocket=606060 roller_skates=e06060 roof=60e060
rose=e0e060 rubber_eraser=6060e0 rug=e060e0 rugby_ball=60e0e0 ruler=e0e0e0 salad=100000
salt_and_pepper_shakers=900000 salt_or_pepper_shaker=108000 sand=908000 sandal=100080 sandwich=900080
saucer=108080 saxophone=908080 scarf=500000 scissors=d00000 scoreboard=508000 scorpion=d08000
screwdriver=500080 sculpture=d00080 sea=508080 sea_lion=d08080 sea_turtle=104000 seafood=904000
seahorse=10c000 seal=90c000 seat_belt=104080 segway=904080 serving_tray=10c080 sewing_machine=90c080
shark=504000 sheep=d04000 shelf=50c000 shellfish=d0c000 shirt=504080 shoe=d04080 shorts=50c080
shotgun=d0c080 shower=100040 shrimp=900040 sidewalk=108040 sink=908040 skateboard=1000c0 ski=9000c0
skirt=1080c0 skis=9080c0 skull=500040 skunk=d00040 sky=508040 sky_other=d08040 skyscraper=5000c0
slow_cooker=d000c0 snail=5080c0 snake=d080c0 snow=104040 snowboard=904040 snowman=10c040
snowmobile=90c040 snowplow=1040c0 soap_dispenser=9040c0 soccer_ball=10c0c0 sock=90c0c0 sofa=504040
sofa_bed=d04040 solid_other=50c040 sombrero=d0c040 sparrow=5040c0 spatula=d040c0 spider=50c0c0
spoon=d0c0c0 sports_ball=300000 sports_uniform=b00000 squash=308000 squirrel=b08000 stairs=300080
starfish=b00080 start=308080 static=b08080 stationary_bicycle=700000 stethoscope=f00000 stone=708000
stool=f08000 stop=700080 stop_sign=f00080 stove=708080 strainer=f08080 straw=304000 strawberry=b04000
street_light=30c000 street_sign=b0c000 stretcher=304080 structural_other=b04080 studio_couch=30c080
submarine_sandwich=b0c080 suit=704000 suitcase=f04000 sun_hat=70c000 sunflower=f0c000 sunglasses=704080
surfboard=f04080 sushi=70c080 swan=f0c080 swim_cap=300040 swimming_pool=b00040 swimming_trunks=308040
swimwear=b08040 swine=3000c0 sword=b000c0 syringe=3080c0 table=b080c0 table_tennis_racket=700040
tablet_computer=f00040 tableware=708040 taco=f08040 tank=7000c0 tap=f000c0 tape_player=7080c0
tart=f080c0 taxi=304040 tea=b04040 teapot=30c040 teddy_bear=b0c040 telephone=3040c0 television=b040c0
tennis_ball=30c0c0 tennis_racket=b0c0c0 tent=704040 terrain=f04040 textile_other=70c040 tiara=f0c040
tick=7040c0 tie=f040c0 tiger=70c0c0 tin_can=f0c0c0 tire=102000 toaster=902000 toilet=10a000
toilet_paper=90a000 tomato=102080 toothbrush=902080 torch=10a080 tortoise=90a080 towel=502000
tower=d02000 toy=50a000 traffic_light=d0a000 traffic_sign=502080 trailer=d02080 train=50a080 tram=d0a080
treadmill=106000 tree=906000 tripod=10e000 trombone=90e000 trousers=106080 truck=906080 trumpet=10e080
tunnel=90e080 turkey=506000 turtle=d06000 tv=50e000 tv_or_monitor=d0e000 tvmonitor=506080
umbrella=d06080 undefined=50e080 unicycle=d0e080 unlabeled=102040 vacuum=902040 van=10a040 vase=90a040
vegetable=1020c0 vegetation=9020c0 vehicle=10a0c0 vehicle_registration_plate=90a0c0 violin=502040
void=d02040 volleyball=50a040 waffle=d0a040 waffle_iron=5020c0 wall=d020c0 wall_brick=50a0c0
wall_clock=d0a0c0 wall_concrete=106040 wall_other=906040 wall_panel=10e040 wall_stone=90e040
wall_tile=1060c0 wall_wood=9060c0 washer=10e0c0 washing_machine=90e0c0 waste_container=506040
watch=d06040 water_bottle=50e040 water_other=d0e040 watercraft=5060c0 waterdrops=d060c0
watermelon=50e0c0 weapon=d0e0c0 whale=302000 wheel=b02000 wheelchair=30a000 whiteboard=b0a000
willow=302080 window=b02080 window_blind=30a080 window_other=b0a080 wine=702000 wine_bottle=f02000
wine_glass=70a000 winter_melon=f0a000 wok=702080 woman=f02080 wood=70a080 wood_burning_stove=f0a080
woodpecker=306000 wrench=b06000 zebra=30e000 zucchini=b0e000
`;
